import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { GROUP_ROLES, GroupRole } from '../group-role';

export class CreateGroupDto {
  @ApiProperty({
    example: 'team-a/backend',
    description: 'Up to 3 segments of [a-z0-9-]{1,64}; a child needs Maintainer+ on its parent',
  })
  @IsString()
  @MaxLength(200)
  name: string;
}

export class SetMemberDto {
  @ApiProperty({ enum: GROUP_ROLES })
  @IsIn(GROUP_ROLES)
  role: GroupRole;
}

export class GroupDto {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: Number, nullable: true }) parent_id: number | null;
  @ApiProperty({ enum: GROUP_ROLES, nullable: true, description: 'Effective role (a parent role holds in children)' })
  my_role: GroupRole | null;
}

export class GroupListDto {
  @ApiProperty({ type: [GroupDto] }) items: GroupDto[];
}

export class MemberDto {
  @ApiProperty() user_id: number;
  @ApiProperty() user_name: string;
  @ApiProperty({ enum: GROUP_ROLES }) role: GroupRole;
}

export class MemberListDto {
  @ApiProperty({ type: [MemberDto] }) items: MemberDto[];
}

export class MembershipDto {
  @ApiProperty() group_id: number;
  @ApiProperty() user_id: number;
  @ApiProperty({ enum: GROUP_ROLES }) role: GroupRole;
}
